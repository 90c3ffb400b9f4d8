"use client";
// Logo and system name, linking home. Both come from the status object (spec §9: /logo.png default).
import { Group, Text, UnstyledButton } from "@mantine/core";
import Link from "next/link";
import { useSiteStatus } from "@/lib/client/hooks";
import { DEFAULT_LOGO, DEFAULT_SYSTEM_NAME } from "@/lib/ui/brand";

export function BrandLink() {
  const status = useSiteStatus();
  const name = status?.system_name || DEFAULT_SYSTEM_NAME;
  const logo = status?.logo || DEFAULT_LOGO;
  return (
    <UnstyledButton component={Link} href="/" aria-label={`${name} 首页`}>
      <Group gap={8} wrap="nowrap">
        {/* eslint-disable-next-line @next/next/no-img-element -- admin-configured logo of any origin */}
        <img src={logo} alt="logo" width={28} height={28} style={{ borderRadius: 6, objectFit: "contain", display: "block" }} />
        <Text fw={700} size="lg" visibleFrom="xs" truncate="end" maw={180}>
          {name}
        </Text>
      </Group>
    </UnstyledButton>
  );
}
