import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export const DOCS_PATH = '/api/v1/docs';
export const DESCRIPTION_PATH = '/api/v1/openapi.json';
export const INIT_SCRIPT = 'docs.js';

/** Swagger UI's files served next to the page: this list, nothing else from the package folder. */
const UI_FOLDER = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
export const UI_ASSETS: Readonly<Record<string, { file: string; type: string }>> = {
  'swagger-ui.css': { file: join(UI_FOLDER, 'swagger-ui.css'), type: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': { file: join(UI_FOLDER, 'swagger-ui-bundle.js'), type: 'text/javascript; charset=utf-8' },
};

/**
 * The page loads its stylesheet and scripts from this origin only (no inline script or style, so
 * the CSP needs no 'unsafe-inline'); Swagger UI may fetch only this origin, and its validator
 * badge (which calls an outside service) is off.
 */
export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; " +
  "form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

export const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Kadu API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
</head>
<body>
<main id="api-reference">
<noscript><p>This page needs JavaScript. The API description itself is at <a href="${DESCRIPTION_PATH}">${DESCRIPTION_PATH}</a> (OpenAPI 3.1).</p></noscript>
</main>
<script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/${INIT_SCRIPT}"></script>
</body>
</html>
`;

export const DOCS_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(DESCRIPTION_PATH)},
    dom_id: '#api-reference',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout'
  });
});
`;
