"use client";
// The side drawer every create/edit form of the console sits in: title, scrolling body, a footer
// with submit (showing progress) and cancel; full width on a phone. The footer sticks to the
// bottom of the drawer, so the buttons are on screen however long the form (issue 20.20). A failed
// submit reveals the first invalid field (components/data/use-invalid-reveal.ts, issue 20.18).
import { Button, Drawer, Group, LoadingOverlay, Stack } from "@mantine/core";
import { useMediaQuery } from "@mantine/hooks";
import type { FormEvent, ReactNode } from "react";
import { useInvalidReveal } from "@/components/data/use-invalid-reveal";

type Props = {
  opened: boolean;
  onClose: () => void;
  title: ReactNode;
  /** The drawer's Mantine form: validated before `onSubmit` runs. */
  form?: { validate: () => { hasErrors: boolean } };
  /** Runs once the form is valid; a field it marks invalid (setFieldError) is revealed after it. */
  onSubmit: () => void | Promise<void>;
  submitting?: boolean;
  /** Data for the form is still loading. */
  loading?: boolean;
  submitLabel?: string;
  position?: "left" | "right";
  /** Runs once the drawer has finished closing (e.g. to clear the form for the next opening). */
  onClosed?: () => void;
  children: ReactNode;
};

export function DrawerForm({
  opened,
  onClose,
  title,
  form,
  onSubmit,
  submitting,
  loading,
  submitLabel = "提交",
  position = "right",
  onClosed,
  children,
}: Props) {
  const narrow = useMediaQuery("(max-width: 48em)");
  const { ref, reveal } = useInvalidReveal<HTMLFormElement>();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (submitting || loading) return;
    if (form?.validate().hasErrors) return reveal();
    await onSubmit();
    reveal();
  };
  return (
    <Drawer
      opened={opened}
      onClose={onClose}
      onExitTransitionEnd={onClosed}
      title={title}
      position={position}
      size={narrow ? "100%" : 600}
      padding="md"
      styles={{ title: { fontWeight: 600, fontSize: "var(--mantine-font-size-lg)" } }}
    >
      <form ref={ref} onSubmit={submit} noValidate>
        <Stack gap="md" pos="relative">
          <LoadingOverlay visible={!!loading} zIndex={5} />
          {children}
          <Group
            justify="flex-end"
            py="sm"
            pos="sticky"
            bottom={0}
            bg="var(--mantine-color-body)"
            style={{ zIndex: 6, borderTop: "1px solid var(--mantine-color-default-border)" }}
          >
            <Button variant="default" onClick={onClose}>
              取消
            </Button>
            <Button type="submit" loading={submitting} disabled={loading}>
              {submitLabel}
            </Button>
          </Group>
        </Stack>
      </form>
    </Drawer>
  );
}
