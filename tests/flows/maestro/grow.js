// An allocation without end: the engine's memory limit stops it (tests/flows/maestro/test_javascript.py).
const kept = [];
for (;;) {
  kept.push('x'.repeat(100000) + kept.length);
}
