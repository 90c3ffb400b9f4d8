// Typed errors thrown by lib/ functions and mapped to the `{success, message, data}` envelope in
// one place (lib/api/route.ts).

const BRAND = Symbol.for("qiao.ApiError");

/**
 * Next's bundles and the custom server load this module separately but share singletons (caches)
 * through globalThis, so an ApiError may come from the other copy: test the brand, not the class.
 */
export function isApiError(e: unknown): e is ApiError {
  return typeof e === "object" && e !== null && (e as Record<symbol, unknown>)[BRAND] === true;
}

export class ApiError extends Error {
  readonly [BRAND] = true;
  constructor(
    message: string,
    /** HTTP status of the envelope response. */
    readonly status: number = 400,
    /** Sent as the envelope's `data`, for a caller that acts on the refusal (e.g. `{ step_up: true }`). */
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export const unauthorized = (message = "未登录且未提供 access token") => new ApiError(message, 401);
export const forbidden = (message = "权限不足") => new ApiError(message, 403);
export const notFound = (message = "记录不存在") => new ApiError(message, 404);
export const badRequest = (message: string) => new ApiError(message, 400);
export const tooManyRequests = (message = "请求过于频繁，请稍后再试") => new ApiError(message, 429);
