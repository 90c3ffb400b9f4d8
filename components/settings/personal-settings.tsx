"use client";
// The personal tab (spec §2 Settings → personal): profile, available models, invite info,
// bindings, system access token, password and account deletion. The balance and the pending
// invite reward are kept here, so a transfer shows its result in both cards at once.
import { Grid, Stack } from "@mantine/core";
import { useState } from "react";
import { AccessTokenCard } from "@/components/settings/access-token-card";
import { BindingsCard } from "@/components/settings/bindings-card";
import { ModelsCard, ProfileCard } from "@/components/settings/profile-cards";
import { DeleteAccountCard } from "@/components/settings/delete-account-card";
import { InviteCard } from "@/components/settings/invite-card";
import { PasskeysCard } from "@/components/settings/passkeys-card";
import { PasswordCard } from "@/components/settings/password-card";
import { SessionsCard } from "@/components/settings/sessions-card";
import { TwoFactorCard } from "@/components/settings/two-factor-card";
import type { UserView } from "@/lib/users/view";

export type PersonalSettingsProps = {
  self: UserView;
  models: string[];
  affCode: string;
  serverAddress: string;
  /** Whether the account has a password (one signed up through a third party sets its first one without the old). */
  hasPassword: boolean;
};

const HALF = { base: 12, md: 6 } as const;

export function PersonalSettings({ self, models, affCode, serverAddress, hasPassword }: PersonalSettingsProps) {
  const [balances, setBalances] = useState({ quota: self.quota, aff_quota: self.aff_quota });
  return (
    <Grid gap="md">
      <Grid.Col span={HALF}>
        <ProfileCard self={{ ...self, quota: balances.quota }} />
      </Grid.Col>
      <Grid.Col span={HALF}>
        <InviteCard
          affCode={affCode}
          serverAddress={serverAddress}
          affCount={self.aff_count}
          affQuota={balances.aff_quota}
          affHistoryQuota={self.aff_history_quota}
          onTransferred={setBalances}
        />
      </Grid.Col>
      <Grid.Col span={12}>
        <ModelsCard models={models} />
      </Grid.Col>
      {/* Two columns of their own height: short cards are not stretched beside tall ones. */}
      <Grid.Col span={HALF}>
        <Stack gap="md">
          <BindingsCard self={self} />
          <SessionsCard />
          <AccessTokenCard />
        </Stack>
      </Grid.Col>
      <Grid.Col span={HALF}>
        <Stack gap="md">
          <PasswordCard key={String(hasPassword)} hasPassword={hasPassword} />
          <TwoFactorCard />
          <PasskeysCard />
          <DeleteAccountCard username={self.username} />
        </Stack>
      </Grid.Col>
    </Grid>
  );
}
