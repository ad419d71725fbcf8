export declare const KADU_FIXTURE_COMPILED: string;
export declare const KADU_FIXTURE_BUNDLE: string;
export declare function kaduFixture(root: string): Promise<string>;
