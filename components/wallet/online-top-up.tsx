"use client";
// Online top-up (spec §2 Wallet page, §5, §7, §8): the amount, the payment methods (支付宝 and 微信
// through EPay, Stripe Checkout when configured) and the confirmation dialog with what the server
// quotes. 确定支付 creates the order on the server and leaves for the gateway: EPay by posting the
// signed form the server answers (a hidden form, same tab), Stripe by following its pay link.
import { Alert, Button, Card, Group, Modal, NumberInput, Stack, Table, Title } from "@mantine/core";
import { useEffect, useState } from "react";
import { useQuotaDisplay } from "@/components/data/display";
import { Icon } from "@/components/icons";
import { api } from "@/lib/client/api";
import { showError } from "@/lib/client/notify";
import { postHiddenForm } from "@/lib/client/post-form";
import {
  checkTopUpAmount,
  clampTopUpAmount,
  moneyText,
  offeredMethods,
  PAYMENT_METHODS,
  type PaymentMethod,
  WALLET_MSG,
} from "@/lib/payments/wallet-form";

/** What the dialog confirms: the amount, the method, and the price the server quoted for them. */
type Quote = { amount: number; method: PaymentMethod; pay: string; currency: string };

/** The quote call of each gateway: EPay prices in 元 (CNY), Stripe in its price's currency. */
async function fetchQuote(method: PaymentMethod, amount: number): Promise<Quote | null> {
  if (method === "stripe") {
    const res = await api<string>("POST", "/api/user/stripe/amount", { amount }, { quiet: true });
    if (!res.success) return failed(res, WALLET_MSG.amountError);
    const currency = typeof res.body.currency === "string" ? res.body.currency.toUpperCase() : "";
    return { amount, method, pay: res.data, currency };
  }
  const res = await api<string>("POST", "/api/user/amount", { amount, top_up_code: "" }, { quiet: true });
  if (!res.success) return failed(res, WALLET_MSG.amountError);
  return { amount, method, pay: res.data, currency: "CNY" };
}

/** Creates the order and leaves for the gateway; answers false when the server refused. */
async function pay(quote: Quote): Promise<boolean> {
  if (quote.method === "stripe") {
    const res = await api<{ pay_link: string }>(
      "POST",
      "/api/user/stripe/pay",
      { amount: quote.amount, payment_method: "stripe" },
      { quiet: true },
    );
    if (!res.success) {
      failed(res, WALLET_MSG.payError);
      return false;
    }
    window.location.assign(res.data.pay_link);
    return true;
  }
  const res = await api<Record<string, string>>(
    "POST",
    "/api/user/pay",
    { amount: quote.amount, top_up_code: "", payment_method: quote.method },
    { quiet: true },
  );
  if (!res.success) {
    failed(res, WALLET_MSG.payError);
    return false;
  }
  postHiddenForm(String(res.body.url), res.data);
  return true;
}

/** Shows a refusal (a 401 is already on its way to the login page) and answers null. */
function failed(res: { success: boolean; message: string; httpStatus?: number }, text: (message: string) => string): null {
  if (res.httpStatus !== 401 && res.message) showError(text(res.message));
  return null;
}

export function OnlineTopUp({ epay, stripe, min }: { epay: boolean; stripe: boolean; min: number }) {
  const { inCurrency } = useQuotaDisplay();
  const unit = inCurrency ? "美元" : "点额度";
  const methods = offeredMethods({ epay, stripe });
  const [amount, setAmount] = useState<number | string>(Math.max(1, min));
  const [pending, setPending] = useState<PaymentMethod | null>(null);
  const [quote, setQuote] = useState<Quote | null>(null);
  const [paying, setPaying] = useState(false);

  // Coming back from the gateway with the browser's back button restores this page as it was left
  // (the back-forward cache): the dialog still open with 确定支付 spinning. Start over instead.
  useEffect(() => {
    const reset = (event: PageTransitionEvent) => {
      if (!event.persisted) return;
      setPaying(false);
      setQuote(null);
    };
    window.addEventListener("pageshow", reset);
    return () => window.removeEventListener("pageshow", reset);
  }, []);

  const start = async (method: PaymentMethod) => {
    const value = clampTopUpAmount(amount);
    setAmount(value);
    const tooSmall = checkTopUpAmount(value, min);
    if (tooSmall) {
      showError(tooSmall);
      return;
    }
    setPending(method);
    const quoted = await fetchQuote(method, value);
    setPending(null);
    if (quoted) setQuote(quoted);
  };

  const confirm = async () => {
    if (!quote) return;
    setPaying(true);
    // On success the browser is leaving: the button keeps spinning until the gateway's page shows.
    if (!(await pay(quote))) setPaying(false);
  };

  return (
    <Card withBorder padding="lg" radius="md">
      <Stack gap="sm">
        <Title order={4}>在线充值</Title>
        {methods.length === 0 ? (
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
              {methods.map((m) => (
                <Button
                  key={m.value}
                  variant="light"
                  color={m.color}
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
      <Modal opened={quote !== null} onClose={() => !paying && setQuote(null)} title="确定要充值吗？" centered>
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
                    {moneyText(quote.pay, quote.currency)}
                  </Table.Td>
                </Table.Tr>
              </Table.Tbody>
            </Table>
            <Group justify="flex-end" gap="xs">
              <Button variant="default" disabled={paying} onClick={() => setQuote(null)}>
                取消
              </Button>
              <Button loading={paying} onClick={confirm}>
                确定支付
              </Button>
            </Group>
          </Stack>
        )}
      </Modal>
    </Card>
  );
}
