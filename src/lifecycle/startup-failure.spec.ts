import { describeValue } from '@kobana/nest-mcp';
import { ApiError } from '../common/api-error.js';
import { startupFailureText } from './startup-failure.js';

describe('the line printed when Kadu cannot start', () => {
  it("names an API error's code, title and detail, not Nest's generic message", () => {
    const refusal = new ApiError(503, 'database_unavailable', 'The database did not answer in time', 'within 3000 ms');
    expect(refusal.message).toBe('Api Error');
    expect(startupFailureText(refusal)).toBe(
      'database_unavailable: The database did not answer in time (within 3000 ms)',
    );
  });

  it("keeps any other error's first line, and describes a thrown non-error", () => {
    expect(startupFailureText(new Error('listen EADDRINUSE: address already in use\n    at …'))).toBe(
      'listen EADDRINUSE: address already in use',
    );
    // A value whose toString is not callable, as a dependency might throw: described, never rethrown.
    expect(startupFailureText({ toString: false })).toBe(describeValue({ toString: false }));
    expect(startupFailureText(Symbol('x'))).toBe(describeValue(Symbol('x')));
  });
});
