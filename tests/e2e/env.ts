// Shared by playwright.config.ts and the specs.
// QIAO_E2E_PORT lets two checkouts run their browser tests side by side (QIAO_E2E_PRIVATE_PORT
// fixes the port of the extra server tests/e2e/private-server.ts starts, QIAO_E2E_STRIPE_PORT that
// of the mock Stripe API).
export const E2E_PORT = Number(process.env.QIAO_E2E_PORT) || 3123;
export const E2E_BASE_URL = `http://127.0.0.1:${E2E_PORT}`;
export const E2E_SESSION_SECRET = "e2e-session-secret-0123456789abcdef0123";
export const ROOT_STATE = "tests/e2e/.auth/root.json";
/**
 * The mock Stripe API of tests/e2e/pay-stripe.spec.ts listens here, and the e2e server's
 * STRIPE_API_BASE_URL points at it (playwright.config.ts): 100 above the server's own port unless
 * QIAO_E2E_STRIPE_PORT says otherwise, so checkouts running side by side do not collide.
 */
export const E2E_STRIPE_PORT = Number(process.env.QIAO_E2E_STRIPE_PORT) || E2E_PORT + 100;
export const E2E_STRIPE_URL = `http://127.0.0.1:${E2E_STRIPE_PORT}`;
