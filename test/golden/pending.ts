// The golden fixtures that are skipped, with the reason: each needs a feature of a later issue. A module of
// its own (not golden.test.ts) so that other test files can read it without registering the golden suite
// again in their own worker (importing a test file runs its describe blocks there).

export const PENDING: Record<string, string> = {
};
