"use client";
// After a failed submit the first invalid field may sit far above the button the user pressed
// (issue 20.18: the edit-user drawer's error scrolled out of view and nothing else showed). Every
// form of the console reveals it the same way: scrolled to the middle of the screen, focused, and
// its error toasted with the field's name.
import { useEffect, useRef, useState } from "react";
import { showError } from "@/lib/client/notify";
import { fieldProblem } from "@/lib/ui/field-problem";

/** The text of the error Mantine links to the field (its `…-error` description). */
function errorOf(field: HTMLElement): string {
  const ids = (field.getAttribute("aria-describedby") ?? "").split(/\s+/).filter((id) => id.endsWith("-error"));
  return ids.map((id) => document.getElementById(id)?.textContent ?? "").find(Boolean) ?? "";
}

function labelOf(field: HTMLElement): string {
  const labelled = field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement ? field.labels?.[0]?.textContent : null;
  return labelled ?? field.getAttribute("aria-label") ?? "";
}

/** Reveals the first field marked invalid under `root`; false when there is none. */
export function revealFirstInvalid(root: HTMLElement | null): boolean {
  const field = root?.querySelector<HTMLElement>('[aria-invalid="true"]');
  if (!field) return false;
  field.scrollIntoView({ block: "center" });
  field.focus({ preventScroll: true });
  const error = errorOf(field);
  if (error) showError(fieldProblem(labelOf(field), error));
  return true;
}

/**
 * `reveal()` after marking fields invalid (form.validate(), setFieldError): once React has drawn
 * the errors, the first one under `ref` is revealed.
 */
export function useInvalidReveal<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (attempt > 0) revealFirstInvalid(ref.current);
  }, [attempt]);
  return { ref, reveal: () => setAttempt((n) => n + 1) };
}
