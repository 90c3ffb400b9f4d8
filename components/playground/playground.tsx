"use client";
// The playground page (spec §2 Playground): the settings beside a chat box whose replies stream
// from POST /pg/chat/completions. On a phone the settings move into a drawer.
import { Box, Button, Drawer, Group, Paper, ScrollArea, Stack, Text, Textarea, Title } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { type FormEvent, type KeyboardEvent, useEffect, useReducer, useRef, useState } from "react";
import { MessageView } from "@/components/playground/message-view";
import { groupLabel, SettingsPanel } from "@/components/playground/settings-panel";
import { Icon } from "@/components/icons";
import { goToExpiredLogin } from "@/lib/client/api";
import {
  buildRequest,
  chatReducer,
  DEFAULT_SYSTEM_PROMPT,
  isBusy,
  type PlaygroundSettings,
  pickModel,
  TEMPERATURE,
} from "@/lib/playground/chat";
import { streamChat } from "@/lib/playground/stream";

type Props = {
  userId: number;
  ownGroup: string;
  groups: Record<string, string>;
  models: Record<string, string[]>;
};

/** How long the expired-session text stays readable before the login page. */
const EXPIRED_REDIRECT_MS = 1500;

let lastId = 0;
const nextId = () => `m${++lastId}`;

export function Playground({ userId, ownGroup, groups, models }: Props) {
  const [settings, setSettings] = useState<PlaygroundSettings>(() => {
    const group = Object.hasOwn(groups, ownGroup) ? ownGroup : (Object.keys(groups)[0] ?? ownGroup);
    return {
      group,
      model: pickModel(models[group] ?? [], ""),
      temperature: TEMPERATURE.initial,
      maxTokens: null,
      systemPrompt: DEFAULT_SYSTEM_PROMPT,
    };
  });
  const [messages, dispatch] = useReducer(chatReducer, []);
  const [draft, setDraft] = useState("");
  const [drawerOpened, drawer] = useDisclosure(false);
  const running = useRef<AbortController | null>(null);
  const viewport = useRef<HTMLDivElement>(null);
  const busy = isBusy(messages);

  // Follow the reply as it streams.
  useEffect(() => {
    const el = viewport.current;
    if (el && messages.length > 0) el.scrollTo({ top: el.scrollHeight });
  }, [messages]);

  // Leaving the page ends the stream (and its billing) instead of letting it run unseen.
  useEffect(() => () => running.current?.abort(), []);

  const send = async (event?: FormEvent) => {
    event?.preventDefault();
    const content = draft.trim();
    if (!content || busy || !settings.model) return;
    const sent = { type: "send", userId: nextId(), assistantId: nextId(), content } as const;
    const body = buildRequest(settings, chatReducer(messages, sent));
    dispatch(sent);
    setDraft("");
    const controller = new AbortController();
    running.current = controller;
    const id = sent.assistantId;
    const outcome = await streamChat(userId, body, controller.signal, (text) => dispatch({ type: "delta", id, text }));
    if (running.current === controller) running.current = null;
    if (outcome.kind !== "error") {
      dispatch({ type: "complete", id });
      return;
    }
    dispatch({ type: "error", id, error: outcome.error });
    // The expired-session text stands in the reply, then the login page says it again (spec §4).
    if (outcome.status === 401) setTimeout(goToExpiredLogin, EXPIRED_REDIRECT_MS);
  };

  const stop = () => running.current?.abort();

  const clear = () => {
    running.current?.abort();
    running.current = null;
    dispatch({ type: "clear" });
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void send();
    }
  };

  const panel = <SettingsPanel settings={settings} onChange={setSettings} groups={groups} models={models} />;

  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="nowrap">
        <Title order={3}>操练场</Title>
        <Group gap="xs" wrap="nowrap">
          <Button hiddenFrom="md" variant="default" leftSection={<Icon name="setting" size={16} />} onClick={drawer.open}>
            设置
          </Button>
          <Button variant="default" leftSection={<Icon name="trash" size={16} />} onClick={clear} disabled={messages.length === 0}>
            清空对话
          </Button>
        </Group>
      </Group>
      <Text hiddenFrom="md" size="sm" c="dimmed" mt={-8} truncate="end">
        {groupLabel(settings.group, groups[settings.group] ?? "")} · {settings.model || "未选择模型"}
      </Text>
      <Group align="stretch" gap="md" wrap="nowrap">
        <Paper withBorder p="md" w={300} visibleFrom="md" style={{ flexShrink: 0 }} aria-label="设置" component="section">
          {panel}
        </Paper>
        <Paper
          withBorder
          component="section"
          aria-label="对话"
          style={{ flex: 1, minWidth: 0, display: "flex", flexDirection: "column", height: "calc(100dvh - 150px)", minHeight: 420 }}
        >
          <ScrollArea viewportRef={viewport} style={{ flex: 1 }} offsetScrollbars type="auto">
            {messages.length === 0 ? (
              <Text c="dimmed" ta="center" py={80} size="sm">
                开始一个新的对话
              </Text>
            ) : (
              <Stack gap="sm" p="md">
                {messages.map((m) => (
                  <MessageView key={m.id} message={m} />
                ))}
              </Stack>
            )}
          </ScrollArea>
          <Box p="sm" style={{ borderTop: "1px solid var(--mantine-color-default-border)" }}>
            <form onSubmit={send}>
              <Group gap="xs" align="flex-end" wrap="nowrap">
                <Textarea
                  aria-label="消息"
                  placeholder="请输入消息，Enter 发送"
                  autosize
                  minRows={1}
                  maxRows={6}
                  value={draft}
                  onChange={(event) => setDraft(event.currentTarget.value)}
                  onKeyDown={onKeyDown}
                  style={{ flex: 1 }}
                />
                {busy ? (
                  <Button color="red" variant="light" onClick={stop}>
                    停止
                  </Button>
                ) : (
                  <Button type="submit" disabled={!draft.trim() || !settings.model}>
                    发送
                  </Button>
                )}
              </Group>
            </form>
          </Box>
        </Paper>
      </Group>
      <Drawer opened={drawerOpened} onClose={drawer.close} title="设置" position="left" size="85%" hiddenFrom="md">
        {panel}
      </Drawer>
    </Stack>
  );
}
