"use client";
// One message of the playground conversation (spec §4 Playground message): the user's text as
// typed; the model's reply as Markdown through the one sanitizer, each code block with a copy
// button, and its state: loading, streaming, complete, or error with the error data appended.
import { Alert, Box, Code, Group, Loader, Paper, Text } from "@mantine/core";
import { memo, useMemo } from "react";
import { CopyButton } from "@/components/data/copy";
import { type ChatMessage, PLAYGROUND_TEXT } from "@/lib/playground/chat";
import { renderMarkdownBlocks } from "@/lib/sanitize";
import classes from "./playground.module.css";

const ROLE_LABEL = { user: "用户消息", assistant: "助手回复" } as const;

export const MessageView = memo(function MessageView({ message }: { message: ChatMessage }) {
  const mine = message.role === "user";
  return (
    <Group
      justify={mine ? "flex-end" : "flex-start"}
      wrap="nowrap"
      role="article"
      aria-label={ROLE_LABEL[message.role]}
      data-role={message.role}
      data-status={message.status}
    >
      <Paper
        px="sm"
        py="xs"
        radius="md"
        withBorder={!mine}
        bg={mine ? "var(--mantine-primary-color-light)" : undefined}
        maw={mine ? "85%" : "100%"}
        miw={0}
        style={{ flex: mine ? undefined : 1 }}
      >
        {mine ? (
          <Text size="sm" style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }}>
            {message.content}
          </Text>
        ) : (
          <Reply message={message} />
        )}
      </Paper>
    </Group>
  );
});

function Reply({ message }: { message: ChatMessage }) {
  if (message.status === "loading") return <Loader type="dots" size="sm" aria-label="正在等待回复" />;
  return (
    <>
      {message.content ? (
        <Markdown text={message.content} />
      ) : (
        message.status === "complete" && (
          <Text size="sm" c="dimmed">
            {PLAYGROUND_TEXT.emptyReply}
          </Text>
        )
      )}
      {message.status === "incomplete" && <Loader type="dots" size="xs" mt={4} aria-label="正在生成" />}
      {message.status === "error" && (
        <Alert color="red" variant="light" p="xs" mt={message.content ? "xs" : 0} role="alert">
          <Text size="sm" style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }}>
            {message.error}
          </Text>
        </Alert>
      )}
      {message.status === "complete" && message.content && (
        <Group justify="flex-end" mt={2} mb={-4} mr={-6}>
          <CopyButton value={message.content} label="复制回复" />
        </Group>
      )}
    </>
  );
}

function Markdown({ text }: { text: string }) {
  const blocks = useMemo(() => renderMarkdownBlocks(text), [text]);
  return (
    <div className={classes.reply}>
      {blocks.map((block, i) =>
        block.kind === "code" ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: blocks have no identity beyond their place
          <Box key={i} className={classes.codeBlock} data-code-block>
            <Group justify="space-between" wrap="nowrap" className={classes.codeHeader}>
              <Text size="xs" c="dimmed" ff="monospace">
                {block.lang || "code"}
              </Text>
              <CopyButton value={block.text} label="复制代码" />
            </Group>
            <Code block className={classes.codeBody}>
              {block.text}
            </Code>
          </Box>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: blocks have no identity beyond their place
          // biome-ignore lint/security/noDangerouslySetInnerHtml: html comes out of lib/sanitize
          <div key={i} dangerouslySetInnerHTML={{ __html: block.html }} />
        ),
      )}
    </div>
  );
}
