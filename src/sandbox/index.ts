/** The local Payment API sandbox: a library (`startSandbox`) and a command (`runSandboxCommand`). */

export type { CallbackAttempt } from "./callbacks.js";
export {
  DEFAULT_SANDBOX_PORT,
  parseSandboxEnv,
  runSandboxCommand,
  SANDBOX_USAGE,
  SandboxCommandError,
  type SandboxCommandIo,
  type SandboxCommandSettings,
  SandboxSettingsError,
} from "./cli.js";
export type { SandboxSnapshot } from "./controls.js";
export type { Fault } from "./faults.js";
export {
  DEFAULT_CALLBACK_RETRY_DELAYS_MS,
  DEFAULT_SANDBOX_API_KEY,
  MAX_BODY_BYTES,
  SANDBOX_MERCHANT_ID,
  type SandboxOptions,
} from "./options.js";
export type { RecordedRequest, RequestFilter } from "./requests.js";
export {
  generatedNameOf,
  SCRIPTED_NUMBERS,
  type ScriptedNumber,
  type ScriptedOutcome,
} from "./scripted.js";
export { type SandboxHandle, startSandbox } from "./server.js";
export { SANDBOX_MAX_AMOUNT_XAF } from "./spec.js";
export { feeOf, type SandboxPayment } from "./state.js";
