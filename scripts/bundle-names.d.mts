export declare function dropUnneededNames(code: string): { code: string; dropped: number; kept: number };
