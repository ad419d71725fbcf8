// The file `npm start` runs: the production bundle's loader (scripts/bundle.mjs). The tests, the
// bench and the scripts that start the app as a process start this one, so the bundle is what they test.
export const APP_ENTRY = 'dist/kadu/kadu.cjs';
