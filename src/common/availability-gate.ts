import { Logger } from '@nestjs/common';
import { describeValue } from '@kobana/nest-mcp';

/**
 * Fail fast while a dependency is known to be away. The first call that times out or cannot
 * connect trips the gate; from then on calls are refused at once (the request answers 503 without
 * waiting again) while a probe checks the dependency in the background, and the first probe that
 * succeeds opens the gate. So a request never waits more than one timeout, however many calls it
 * makes, and service resumes by itself when the dependency returns.
 */
export class AvailabilityGate {
  private readonly logger: Logger;
  private down = false;
  private timer?: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly name: string,
    private readonly probe: () => Promise<void>,
    private readonly probeIntervalMs = 500,
  ) {
    this.logger = new Logger(name);
  }

  /** True while calls should be refused without trying. */
  get isDown(): boolean {
    return this.down;
  }

  trip(reason: unknown): void {
    if (this.down || this.closed) return;
    this.down = true;
    this.logger.warn(`unreachable (${describeValue(reason)}); refusing calls until it answers again`);
    this.schedule(0);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  private schedule(delay: number): void {
    if (this.closed) return;
    this.timer = setTimeout(() => void this.check(), delay);
    this.timer.unref();
  }

  private async check(): Promise<void> {
    try {
      await this.probe();
      this.down = false;
      this.logger.log('reachable again');
    } catch {
      this.schedule(this.probeIntervalMs);
    }
  }
}
