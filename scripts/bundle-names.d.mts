export declare function dropUnneededNames(code: string): {
  code: string;
  dropped: number;
  literal: number;
  kept: number;
};
