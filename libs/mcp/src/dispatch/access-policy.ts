// The access decision moved to access/ (below dispatch/ and subscriptions/, which both use it);
// this re-export keeps the handlers' imports as they are until they name access/ themselves.
export { type AccessDecision, AccessPolicy } from '../access/access-policy.js';
