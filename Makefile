# Konvoj. The commands a newcomer needs: `make run`, `make test` and `make stop`.
SHELL := /bin/bash
GO ?= go

.PHONY: run stop test build generate css htmx workbox icons assets check bench bench-go fmt vet tidy tools

## run: build, start a private PostgreSQL under ./data (unless DATABASE_URL is set), migrate, seed the demo, serve on HTTP_ADDR (:8080)
run: build
	@scripts/run.sh

## stop: stop the server and the private PostgreSQL that `make run` started (Ctrl-C on make run does the same)
stop:
	@scripts/stop.sh

## test: every test against real PostgreSQL, Redis, S3 server, OIDC provider and browser
test:
	@scripts/test.sh

## build: the konvoj binary in ./bin
build:
	$(GO) build -o bin/konvoj ./cmd/konvoj

## generate: templ components (generated Go is committed)
generate:
	$(GO) tool templ generate

## css: rebuild static/app.css from tailwind.config.js (built CSS is committed)
css: node_modules
	node_modules/.bin/tailwindcss -c tailwind.config.js -i static/input.css -o static/app.css --minify

## htmx: copy the pinned htmx (package.json) into static/ (committed)
htmx: node_modules
	cp node_modules/htmx.org/dist/htmx.min.js static/htmx.min.js

## apidocs: copy the pinned Swagger UI (package.json) into static/apidocs (committed)
apidocs: node_modules
	cp node_modules/swagger-ui-dist/swagger-ui-bundle.js node_modules/swagger-ui-dist/swagger-ui.css node_modules/swagger-ui-dist/LICENSE static/apidocs/

## workbox: copy the pinned Workbox runtime (package.json) into static/workbox, which the service worker loads from (committed)
workbox: node_modules
	mkdir -p static/workbox
	cp node_modules/workbox-sw/build/workbox-sw.js node_modules/workbox-sw/LICENSE static/workbox/
	for m in core routing strategies precaching; do cp node_modules/workbox-$$m/build/workbox-$$m.prod.js static/workbox/; done

## icons: draw the installed app's icons into static/icons (committed)
icons:
	$(GO) run static/icons/gen.go

## assets: templ components, CSS, htmx, Swagger UI and Workbox, all regenerated
assets: generate css htmx apidocs workbox

node_modules: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch node_modules

## check: formatting, vet, go.mod and go.sum tidy (part of `make test`, so CI runs it)
check: fmt vet tidy

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '_templ.go$$')); if [ -n "$$out" ]; then echo "gofmt: $$out"; exit 1; fi

vet:
	$(GO) vet ./...

# tidy: fails when `go mod tidy` would change go.mod or go.sum (shows the diff)
tidy:
	@$(GO) mod tidy -diff || { echo "go.mod/go.sum not tidy: run 'go mod tidy'"; exit 1; }

## bench: each read endpoint against a pgbench replay of its own SQL, the mix, profiles, then the Go benchmarks; writes the load tables into docs/performance.md (BENCH_SETS, BENCH_CONNS, BENCH_DURATION, BENCH_DOC …)
bench:
	@scripts/bench.sh
