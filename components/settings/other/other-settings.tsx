"use client";
// The super admin's "other" tab (spec §2 Settings): notice, system name, logo, home page content,
// about and footer, one form each.
import { Stack } from "@mantine/core";
import { OtherFieldCard } from "@/components/settings/other/other-field-card";
import { OTHER_FIELDS, type OtherValues } from "@/components/settings/other/fields";

export function OtherSettings({ values }: { values: OtherValues }) {
  return (
    <Stack gap="md">
      {OTHER_FIELDS.map((field) => (
        <OtherFieldCard key={field.key} field={field} initial={values[field.key]} />
      ))}
    </Stack>
  );
}
