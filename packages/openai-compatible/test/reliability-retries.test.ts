/**
 * Refused and cut connections with the default retries (3 attempts) and the default backoff
 * (waits of 1-2 s and 2-3 s), through the real SDK: docs/reliability.md, decision 0159.
 */

import { describeRetrySchedule } from '../../conformance/test/retry-schedule-suite.js';
import { MistralAdapter } from '../src/index.js';

describeRetrySchedule({
  name: 'openai-compatible',
  model: 'mistral:mistral-large-latest',
  createAdapter: (config) => new MistralAdapter(config),
});
