"use client";
// Online top-up (spec §2 Wallet page, §5, §8): the amount, the two payment methods, and the
// confirmation dialog with what the server quotes for it (POST /api/user/amount). The payment
// gateway (POST /api/user/pay) does not exist yet, so the dialog says so and pays nothing.
import { Alert, Button, Card, Group, Modal, NumberInput, Stack, Table, Title } from "@mantine/core";
import { useState } from "react";
import { useQuotaDisplay } from "@/components/data/display";
import { Icon } from "@/components/icons";
import { api } from "@/lib/client/api";
import { showError } from "@/lib/client/notify";
import { checkTopUpAmount, clampTopUpAmount, PAYMENT_METHODS, type PaymentMethod, WALLET_MSG } from "@/lib/payments/wallet-form";

type Quote = { amount: number; method: PaymentMethod; pay: string };

export function OnlineTopUp({ enabled, min }: { enabled: boolean; min: number }) {
  const { inCurrency } = useQuotaDisplay();
  const unit = inCurrency ? "美元" : "点额度";
  const [amount, setAmount] = useState<number | string>(Math.max(1, min));
  const [pending, setPending] = useState<PaymentMethod | null>(null);
  const [quote, setQuote] = useState<Quote | null>(null);

  const start = async (method: PaymentMethod) => {
    const value = clampTopUpAmount(amount);
    setAmount(value);
    const tooSmall = checkTopUpAmount(value, min);
    if (tooSmall) {
      showError(tooSmall);
      return;
    }
    setPending(method);
    const res = await api<string>("POST", "/api/user/amount", { amount: value, top_up_code: "" }, { quiet: true });
    setPending(null);
    if (!res.success) {
      if (res.httpStatus !== 401 && res.message) showError(WALLET_MSG.amountError(res.message));
      return;
    }
    setQuote({ amount: value, method, pay: res.data });
  };

  return (
    <Card withBorder padding="lg" radius="md">
      <Stack gap="sm">
        <Title order={4}>在线充值</Title>
        {!enabled ? (
          <Alert color="gray" variant="light" icon={<Icon name="info" size={18} />}>
            {WALLET_MSG.onlineDisabled}
          </Alert>
        ) : (
          <>
            <NumberInput
              label={`充值数量（${unit}）`}
              description={`最低充值数量：${min}`}
              value={amount}
              onChange={setAmount}
              onBlur={() => setAmount(clampTopUpAmount(amount))}
              min={1}
              max={Number.MAX_SAFE_INTEGER}
              clampBehavior="blur"
              allowDecimal={false}
              allowNegative={false}
              thousandSeparator=","
            />
            <Group gap="xs">
              {PAYMENT_METHODS.map((m) => (
                <Button
                  key={m.value}
                  variant="light"
                  color={m.value === "zfb" ? "blue" : "green"}
                  loading={pending === m.value}
                  disabled={pending !== null && pending !== m.value}
                  onClick={() => start(m.value)}
                >
                  {m.label}
                </Button>
              ))}
            </Group>
          </>
        )}
      </Stack>
      <Modal opened={quote !== null} onClose={() => setQuote(null)} title="确定要充值吗？" centered>
        {quote && (
          <Stack gap="md">
            <Table withRowBorders={false} verticalSpacing={4}>
              <Table.Tbody>
                <Table.Tr>
                  <Table.Td c="dimmed" w={100}>
                    充值数量
                  </Table.Td>
                  <Table.Td data-testid="topup-amount">
                    {quote.amount.toLocaleString("en-US")} {unit}
                  </Table.Td>
                </Table.Tr>
                <Table.Tr>
                  <Table.Td c="dimmed">支付方式</Table.Td>
                  <Table.Td>{PAYMENT_METHODS.find((m) => m.value === quote.method)?.label}</Table.Td>
                </Table.Tr>
                <Table.Tr>
                  <Table.Td c="dimmed">实付金额</Table.Td>
                  <Table.Td fw={700} data-testid="topup-pay">
                    {quote.pay} 元
                  </Table.Td>
                </Table.Tr>
              </Table.Tbody>
            </Table>
            <Alert color="yellow" variant="light">
              {WALLET_MSG.gatewayMissing}
            </Alert>
            <Group justify="flex-end" gap="xs">
              <Button variant="default" onClick={() => setQuote(null)}>
                取消
              </Button>
              <Button disabled>确定支付</Button>
            </Group>
          </Stack>
        )}
      </Modal>
    </Card>
  );
}
