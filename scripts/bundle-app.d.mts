export declare function bundleApp(options: { entry: string; outfile: string }): Promise<{
  bytes: Buffer;
  modules: number;
  names: { dropped: number; literal: number; kept: number };
}>;
