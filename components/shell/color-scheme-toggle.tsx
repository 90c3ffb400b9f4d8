"use client";
// Dark/light switch; Mantine's local-storage manager remembers the choice across reloads. Both
// icons are rendered and hidden by CSS so the server render never depends on the scheme.
import { ActionIcon, useComputedColorScheme, useMantineColorScheme } from "@mantine/core";
import { Icon } from "@/components/icons";

export function ColorSchemeToggle() {
  const { setColorScheme } = useMantineColorScheme();
  const computed = useComputedColorScheme("light", { getInitialValueInEffect: true });
  return (
    <ActionIcon
      variant="default"
      size="lg"
      aria-label="切换明暗主题"
      title="切换明暗主题"
      onClick={() => setColorScheme(computed === "dark" ? "light" : "dark")}
    >
      <Icon name="moon" className="mantine-dark-hidden" />
      <Icon name="sun" className="mantine-light-hidden" />
    </ActionIcon>
  );
}
