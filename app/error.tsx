"use client";
// What a console page shows when rendering it threw. The error itself is not the user's to read
// (the server logs it), so the page says only that loading failed and offers to try again.
import { Alert, Button, Container, Text } from "@mantine/core";

// Next 16 hands the boundary `retry` (fetch the segment again and re-render) beside `reset` (re-render
// only): a failed server render needs the fetch, or 重试 would show the same error.
export default function ErrorPage({ retry }: { error: unknown; retry: () => void }) {
  return (
    <Container size="sm" py="xl">
      <Alert color="red" variant="light" title="页面加载失败">
        <Text size="sm">出现了一些问题，请稍后重试</Text>
        <Button size="xs" variant="light" color="red" mt="xs" onClick={() => retry()}>
          重试
        </Button>
      </Alert>
    </Container>
  );
}
