/** The app's process entry, relative to the repository: what `npm start` runs. */
export declare const APP_ENTRY: string;
