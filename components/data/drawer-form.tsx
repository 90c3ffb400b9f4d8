"use client";
// The side drawer every create/edit form of the console sits in: title, scrolling body, a footer
// with submit (showing progress) and cancel; full width on a phone.
import { Button, Drawer, Group, LoadingOverlay, Stack } from "@mantine/core";
import { useMediaQuery } from "@mantine/hooks";
import type { FormEvent, ReactNode } from "react";

type Props = {
  opened: boolean;
  onClose: () => void;
  title: ReactNode;
  onSubmit: () => void | Promise<void>;
  submitting?: boolean;
  /** Data for the form is still loading. */
  loading?: boolean;
  submitLabel?: string;
  position?: "left" | "right";
  children: ReactNode;
};

export function DrawerForm({
  opened,
  onClose,
  title,
  onSubmit,
  submitting,
  loading,
  submitLabel = "提交",
  position = "right",
  children,
}: Props) {
  const narrow = useMediaQuery("(max-width: 48em)");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!submitting && !loading) void onSubmit();
  };
  return (
    <Drawer
      opened={opened}
      onClose={onClose}
      title={title}
      position={position}
      size={narrow ? "100%" : 600}
      padding="md"
      styles={{ title: { fontWeight: 600, fontSize: "var(--mantine-font-size-lg)" } }}
    >
      <form onSubmit={submit} noValidate>
        <Stack gap="md" pos="relative">
          <LoadingOverlay visible={!!loading} zIndex={5} />
          {children}
          <Group justify="flex-end" mt="sm">
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
