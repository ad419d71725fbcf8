import type { Request, Response } from 'express';

/**
 * One step of the ladder's guard pass (docs/ladder.md §2): it refuses by throwing an
 * `McpRejectionError`, and returns a promise only when it has to wait (the body, a budget store).
 */
export interface LadderCheck {
  check(req: Request, res: Response): void | Promise<void>;
}
