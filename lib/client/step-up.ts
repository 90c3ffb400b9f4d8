// Step-up in the browser. When a call is refused with `data.step_up` (lib/auth/step-up.ts), the
// api client (lib/client/api.ts) asks here; the dialog (components/auth/step-up.tsx) registers as
// the one that asks the user, and answers whether they verified. Calls refused together share one
// dialog. Without a dialog mounted the refusal is reported as it came.

type Asker = () => Promise<boolean>;

let asker: Asker | null = null;
let asking: Promise<boolean> | null = null;

/** Registers (or, with null, removes) the dialog that asks the user to verify. */
export function setStepUpAsker(next: Asker | null): void {
  asker = next;
}

/** Asks the user to verify: true once they did, false when they gave up, null when nothing can ask. */
export function askStepUp(): Promise<boolean | null> {
  if (!asker) return Promise.resolve(null);
  asking ??= asker().finally(() => {
    asking = null;
  });
  return asking;
}

/** Whether an envelope's `data` is the step-up refusal. */
export const isStepUpRefusal = (data: unknown): boolean =>
  !!data && typeof data === "object" && (data as { step_up?: unknown }).step_up === true;
