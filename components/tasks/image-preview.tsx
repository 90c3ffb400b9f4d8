"use client";
// 查看图片 on a drawing row: the result in a modal, loaded through our image proxy (/mj/image/…),
// so the vendor's address is never in the page.
import { Button, Image, Modal, Text } from "@mantine/core";
import { useState } from "react";

export function ImagePreview({ src, mjId }: { src: string; mjId: string }) {
  const [open, setOpen] = useState(false);
  if (!src) {
    return (
      <Text size="sm" c="dimmed">
        无
      </Text>
    );
  }
  return (
    <>
      <Button size="compact-sm" variant="light" onClick={() => setOpen(true)}>
        查看图片
      </Button>
      <Modal opened={open} onClose={() => setOpen(false)} title="结果图片" centered size="auto">
        {open && <Image src={src} alt={`绘图结果 ${mjId}`} maw="min(80vw, 1024px)" mah="75vh" fit="contain" />}
      </Modal>
    </>
  );
}
