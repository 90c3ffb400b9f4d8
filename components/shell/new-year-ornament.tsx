"use client";
// A small lantern with a greeting, shown around 1 January and 9–24 February (spec §2). Decided
// after hydration: the server's clock and time zone are not the visitor's.
import { Text, Tooltip } from "@mantine/core";
import { useHydrated } from "@/lib/client/hooks";
import { isNewYearPeriod } from "@/lib/ui/new-year";

export function NewYearOrnament() {
  const hydrated = useHydrated();
  if (!hydrated || !isNewYearPeriod(new Date())) return null;
  return (
    <Tooltip label="新年快乐！">
      <Text component="span" size="xl" role="img" aria-label="新年快乐" data-testid="new-year-ornament" style={{ cursor: "default" }}>
        🏮
      </Text>
    </Tooltip>
  );
}
