/** Every problem of the environment at once, one line each (start-up prints them and exits 1). */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}
