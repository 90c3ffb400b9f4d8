// One block of a settings tab: a bordered section with a heading (its accessible name) and an
// optional line of explanation.
import { Group, Paper, Stack, Text, Title } from "@mantine/core";
import { type ReactNode, useId } from "react";

type Props = {
  title: string;
  description?: ReactNode;
  /** Beside the title, e.g. a count or a badge. */
  extra?: ReactNode;
  /** Red border, for what cannot be undone. */
  danger?: boolean;
  /** Take the full height of its grid cell, so the cards of one row line up. */
  stretch?: boolean;
  children: ReactNode;
};

export function SettingCard({ title, description, extra, danger = false, stretch = false, children }: Props) {
  const id = useId();
  return (
    <Paper
      component="section"
      aria-labelledby={id}
      withBorder
      p="md"
      radius="md"
      h={stretch ? "100%" : undefined}
      style={danger ? { borderColor: "var(--mantine-color-red-outline)" } : undefined}
    >
      <Stack gap="sm">
        <Group justify="space-between" gap="xs" wrap="nowrap">
          <Title order={4} id={id} c={danger ? "red" : undefined}>
            {title}
          </Title>
          {extra}
        </Group>
        {description && (
          <Text size="sm" c="dimmed">
            {description}
          </Text>
        )}
        {children}
      </Stack>
    </Paper>
  );
}
