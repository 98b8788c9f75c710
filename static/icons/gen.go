//go:build ignore

// Draws the installed app's icons: a white "K" on the header's blue, at
// 192 and 512 px, and a maskable 512 px one whose letter stays inside the
// central circle a launcher may crop to. Run by `make icons`; the PNGs are
// committed.
package main

import (
	"image"
	"image/color"
	"image/png"
	"log"
	"os"
)

// blue is Tailwind's blue-800, the header's brand colour (theme_color).
var blue = color.RGBA{0x1e, 0x40, 0xaf, 0xff}

type pt struct{ x, y float64 }

// The letter on a unit square: a stem and two arms.
var letter = [][]pt{
	{{0.28, 0.22}, {0.40, 0.22}, {0.40, 0.78}, {0.28, 0.78}},
	{{0.40, 0.50}, {0.60, 0.22}, {0.75, 0.22}, {0.48, 0.56}},
	{{0.44, 0.50}, {0.54, 0.44}, {0.76, 0.78}, {0.61, 0.78}},
}

func inside(poly []pt, p pt) bool {
	in := false
	for i, j := 0, len(poly)-1; i < len(poly); j, i = i, i+1 {
		a, b := poly[i], poly[j]
		if (a.y > p.y) != (b.y > p.y) && p.x < (b.x-a.x)*(p.y-a.y)/(b.y-a.y)+a.x {
			in = !in
		}
	}
	return in
}

// draw renders the icon at size px; scale shrinks the letter around the
// centre (the maskable icon's safe zone).
func draw(size int, scale float64, name string) {
	img := image.NewRGBA(image.Rect(0, 0, size, size))
	const ss = 4 // samples per axis, for smooth edges
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			hits := 0
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					p := pt{(float64(x) + (float64(sx)+0.5)/ss) / float64(size), (float64(y) + (float64(sy)+0.5)/ss) / float64(size)}
					p = pt{(p.x-0.5)/scale + 0.5, (p.y-0.5)/scale + 0.5}
					for _, poly := range letter {
						if inside(poly, p) {
							hits++
							break
						}
					}
				}
			}
			f := float64(hits) / ss / ss
			mix := func(c uint8) uint8 { return uint8(float64(c)*(1-f) + 255*f + 0.5) }
			img.SetRGBA(x, y, color.RGBA{mix(blue.R), mix(blue.G), mix(blue.B), 0xff})
		}
	}
	out, err := os.Create(name)
	if err != nil {
		log.Fatal(err)
	}
	if err := png.Encode(out, img); err != nil {
		log.Fatal(err)
	}
	if err := out.Close(); err != nil {
		log.Fatal(err)
	}
}

func main() {
	draw(192, 1, "static/icons/icon-192.png")
	draw(512, 1, "static/icons/icon-512.png")
	draw(512, 0.75, "static/icons/maskable-512.png")
	draw(180, 1, "static/icons/apple-touch-icon.png")
}
