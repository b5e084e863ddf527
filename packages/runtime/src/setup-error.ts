import { YourtoolError } from '@yourtool/core';

/** `createRuntime` could not be set up: a missing adapter or store package, or a bad option. */
export class RuntimeSetupError extends YourtoolError {}
