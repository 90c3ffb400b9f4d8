// The console's one way to call /api: adds the New-Api-User header, parses the envelope and
// applies spec §8 (notifications, the expired-session redirect). A call refused for want of a
// recent verification (403 with `data.step_up`) asks the user to verify and is sent once more, so
// no call site handles step-up itself. Browser-only.
import { showError, showInfo } from "@/lib/client/notify";
import { askStepUp, isStepUpRefusal } from "@/lib/client/step-up";
import { clearUser, readUser } from "@/lib/client/storage";
import { describeFailure } from "@/lib/ui/api-errors";
import { EXPIRED_LOGIN_PATH } from "@/lib/auth/route-access";

export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE";

export type ApiOptions = {
  /** Do not show a notification on failure; the caller reports it. */
  quiet?: boolean;
  /** false on the login and register forms: a 401 there is an answer, not an expired session. */
  redirectOn401?: boolean;
  signal?: AbortSignal;
  /** Send this user id instead of the stored user's (restoring a lost stored user from the cookie). */
  asUser?: number;
};

export type ApiResult<T> =
  | {
      success: true;
      message: string;
      data: T /** The whole answer, for calls with fields beside data (a channel test's time). */;
      body: Record<string, unknown>;
    }
  | { success: false; message: string; data?: undefined; httpStatus: number };

type Envelope = { success: boolean; message?: unknown; data?: unknown };

const isEnvelope = (value: unknown): value is Envelope =>
  !!value && typeof value === "object" && typeof (value as Envelope).success === "boolean";

/** Forget the stored user and go to the login page with the expired notice. */
export function goToExpiredLogin() {
  clearUser();
  if (window.location.pathname !== "/login") window.location.assign(EXPIRED_LOGIN_PATH);
}

export function api<T = unknown>(method: HttpMethod, path: string, body?: unknown, options: ApiOptions = {}): Promise<ApiResult<T>> {
  return send<T>(method, path, body, options, true);
}

async function send<T>(method: HttpMethod, path: string, body: unknown, options: ApiOptions, mayStepUp: boolean): Promise<ApiResult<T>> {
  const headers: Record<string, string> = { accept: "application/json" };
  const userId = options.asUser ?? readUser()?.id;
  if (userId !== undefined) headers["New-Api-User"] = String(userId);
  if (body !== undefined) headers["content-type"] = "application/json";

  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
      cache: "no-store",
      signal: options.signal,
    });
  } catch (error) {
    if ((error as Error).name === "AbortError") return { success: false, message: "", httpStatus: 0 };
    return fail(0, null, options);
  }

  let parsed: unknown = null;
  try {
    parsed = await response.json();
  } catch {
    parsed = null;
  }
  const envelope = isEnvelope(parsed) ? parsed : null;
  const message = envelope && typeof envelope.message === "string" ? envelope.message : "";
  if (response.ok && envelope?.success)
    return { success: true, message, data: envelope.data as T, body: envelope as Record<string, unknown> };
  if (mayStepUp && response.status === 403 && isStepUpRefusal(envelope?.data)) {
    const verified = await askStepUp();
    if (verified) return send<T>(method, path, body, options, false);
    // The user closed the dialog: they know why nothing happened.
    if (verified === false) return { success: false, message, httpStatus: response.status };
  }
  return fail(response.status, envelope ? message || null : null, options);
}

function fail<T>(httpStatus: number, message: string | null, options: ApiOptions): ApiResult<T> {
  const outcome = describeFailure(httpStatus, message, options.redirectOn401 ?? true);
  if (outcome.kind === "expired") {
    goToExpiredLogin();
    return { success: false, message: message ?? "", httpStatus };
  }
  if (!options.quiet) (outcome.level === "info" ? showInfo : showError)(outcome.text);
  return { success: false, message: outcome.text, httpStatus };
}
