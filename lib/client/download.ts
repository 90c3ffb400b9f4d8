// Saves a file an /api route streams (the log's CSV export): fetched with the session's
// New-Api-User header, which a plain link cannot send, then handed to the browser as a download
// under the name the server's content-disposition gives. A refusal (an envelope) is shown as
// api() shows it (spec §8). Browser-only.
import { goToExpiredLogin } from "@/lib/client/api";
import { showError, showInfo } from "@/lib/client/notify";
import { readUser } from "@/lib/client/storage";
import { describeFailure } from "@/lib/ui/api-errors";

/** The filename of a content-disposition header, or the fallback. */
function fileNameOf(disposition: string | null, fallback: string): string {
  const match = disposition?.match(/filename="?([^";]+)"?/);
  return match?.[1] ?? fallback;
}

/** Downloads `path`; false when it was refused (the refusal was shown). */
export async function downloadFile(path: string, fallbackName: string): Promise<boolean> {
  const userId = readUser()?.id;
  let response: Response;
  try {
    response = await fetch(path, {
      headers: userId === undefined ? {} : { "New-Api-User": String(userId) },
      credentials: "same-origin",
      cache: "no-store",
    });
  } catch {
    return refused(0, null);
  }
  if (!response.ok) {
    const envelope: unknown = await response.json().catch(() => null);
    const message = (envelope as { message?: unknown } | null)?.message;
    return refused(response.status, typeof message === "string" ? message : null);
  }
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement("a");
  link.href = url;
  link.download = fileNameOf(response.headers.get("content-disposition"), fallbackName);
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return true;
}

function refused(httpStatus: number, message: string | null): false {
  const outcome = describeFailure(httpStatus, message);
  if (outcome.kind === "expired") goToExpiredLogin();
  else (outcome.level === "info" ? showInfo : showError)(outcome.text);
  return false;
}
