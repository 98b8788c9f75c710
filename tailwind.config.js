// Tailwind 3 build of static/app.css (`make css`). The class names are
// found in the templ components and the page handlers (web/pages) only, so
// Go code elsewhere cannot change the CSS by accident.
/** @type {import('tailwindcss').Config} */
module.exports = {
  content: ['./views/**/*.templ', './web/pages/**/*.go'],
  theme: {
    extend: {
      colors: {
        // Document status colours (docs/drivers-and-documents.md), one place for every page.
        status: {
          valid: '#15803d',
          warning: '#a16207',
          expiring: '#c2410c',
          expired: '#b91c1c',
          nodata: '#4b5563',
        },
      },
    },
  },
  plugins: [],
};
