/** The one spelling of a file's MCP resource: its template and the URI output-file links name. */
export const FILE_URI_TEMPLATE = 'kobana://kadu/files/{id}';

export const fileUri = (id: string): string => FILE_URI_TEMPLATE.replace('{id}', id);
