// What a store refuses with, known to the API's error catalogue by code: the HTTP layer answers with it.

/** Why a store refused: it cannot keep writes now, or the write would take it past its budget. */
export type StoreErrorCode = "STORE_UNAVAILABLE" | "STORE_FULL";

/**
 * A refusal of the store itself, as a value with a code and the status the catalogue gives it
 * (api/errors.ts, tested equal), so the store needs nothing of the layers above it.
 */
export class StoreError extends Error {
  readonly code: StoreErrorCode;
  readonly status: number;

  constructor(code: StoreErrorCode, message: string) {
    // Answered, never logged: no one reads its stack.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = "StoreError";
    this.code = code;
    this.status = code === "STORE_FULL" ? 507 : 503;
  }
}
