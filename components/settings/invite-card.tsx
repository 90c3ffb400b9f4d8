"use client";
// Invite info (spec §2 Settings → personal, inventory §4.5): the invite link with the user's code,
// how many registered through it, the reward waiting to be used and the total, and the dialog
// that moves the waiting reward to the balance (POST /api/user/aff_transfer).
import { Button, Group, Modal, NumberInput, SimpleGrid, Stack, Text, TextInput } from "@mantine/core";
import { useState } from "react";
import { CopyButton } from "@/components/data/copy";
import { QuotaText, useQuotaDisplay } from "@/components/data/display";
import { SettingCard } from "@/components/settings/setting-card";
import { useHydrated } from "@/lib/client/hooks";
import { api } from "@/lib/client/api";
import { showSuccess } from "@/lib/client/notify";
import { formatCompact, formatQuota } from "@/lib/ui/format";
import { AFF_MSG, checkTransfer, defaultTransferAmount, inviteLink } from "@/lib/users/self-form";

type Balances = { quota: number; aff_quota: number };

type Props = {
  affCode: string;
  serverAddress: string;
  affCount: number;
  affQuota: number;
  affHistoryQuota: number;
  onTransferred: (balances: Balances) => void;
};

function Figure({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <Stack gap={2} miw={0}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={600} size="lg">
        {children}
      </Text>
    </Stack>
  );
}

export function InviteCard({ affCode, serverAddress, affCount, affQuota, affHistoryQuota, onTransferred }: Props) {
  const hydrated = useHydrated();
  const [transferring, setTransferring] = useState(false);
  // Without a configured server address the link uses the address the console is open at.
  const link = inviteLink(serverAddress, hydrated ? window.location.origin : "", affCode);
  return (
    <SettingCard title="邀请信息" stretch description="新用户通过你的邀请链接注册后，邀请奖励会计入待使用收益，可随时划转到余额。">
      <TextInput
        label="邀请链接"
        value={link}
        readOnly
        onFocus={(e) => e.currentTarget.select()}
        rightSection={<CopyButton value={link} label="复制邀请链接" />}
      />
      <SimpleGrid cols={3} spacing="sm">
        <Figure label="邀请人数">{formatCompact(affCount)}</Figure>
        <Figure label="待使用收益">
          <QuotaText quota={affQuota} />
        </Figure>
        <Figure label="总收益">
          <QuotaText quota={affHistoryQuota} />
        </Figure>
      </SimpleGrid>
      <Group>
        <Button variant="light" onClick={() => setTransferring(true)}>
          划转到余额
        </Button>
      </Group>
      <TransferDialog
        opened={transferring}
        affQuota={affQuota}
        onClose={() => setTransferring(false)}
        onDone={(balances) => {
          setTransferring(false);
          onTransferred(balances);
        }}
      />
    </SettingCard>
  );
}

function TransferDialog({
  opened,
  affQuota,
  onClose,
  onDone,
}: {
  opened: boolean;
  affQuota: number;
  onClose: () => void;
  onDone: (b: Balances) => void;
}) {
  return (
    <Modal opened={opened} onClose={onClose} title="划转邀请额度到余额" centered>
      {/* The modal mounts its content on each opening, so the form starts from the reward as it is now. */}
      <TransferForm affQuota={affQuota} onClose={onClose} onDone={onDone} />
    </Modal>
  );
}

function TransferForm({ affQuota, onClose, onDone }: { affQuota: number; onClose: () => void; onDone: (b: Balances) => void }) {
  const display = useQuotaDisplay();
  const [amount, setAmount] = useState<number | string>(() => defaultTransferAmount(affQuota, display));
  const [error, setError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    const check = checkTransfer(amount, affQuota, display);
    if (!check.ok) {
      setError(check.message);
      return;
    }
    setSubmitting(true);
    const res = await api<Balances>("POST", "/api/user/aff_transfer", { quota: check.quota });
    setSubmitting(false);
    if (!res.success) return;
    showSuccess(res.message || AFF_MSG.transferred);
    onDone(res.data);
  };

  return (
    <form noValidate onSubmit={submit}>
      <Stack gap="sm">
        <Text size="sm">
          可划转额度：
          <QuotaText quota={affQuota} />
        </Text>
        <NumberInput
          label="划转额度"
          description={`最低 ${formatQuota(Math.trunc(display.quotaPerUnit), display)}`}
          prefix={display.inCurrency ? "$" : undefined}
          decimalScale={display.inCurrency ? 2 : 0}
          allowNegative={false}
          min={0}
          value={amount}
          onChange={(value) => {
            setAmount(value);
            setError(null);
          }}
          error={error}
          data-autofocus
        />
        <Group justify="flex-end" gap="xs">
          <Button variant="default" onClick={onClose}>
            取消
          </Button>
          <Button type="submit" loading={submitting}>
            划转
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
