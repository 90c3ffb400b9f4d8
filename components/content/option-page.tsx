"use client";
// A page made of one admin-written option (home page content, about): loading, error, empty
// (the caller's default) and content states.
import { Alert, Center, Loader } from "@mantine/core";
import type { ReactNode } from "react";
import { AdminContent } from "@/components/content/admin-content";
import { useOptionText } from "@/components/content/use-option-text";

export function OptionPage({ path, title, failure, empty }: { path: string; title: string; failure: string; empty: ReactNode }) {
  const content = useOptionText(path);
  if (content.state === "loading") {
    return (
      <Center py="xl">
        <Loader aria-label="加载中" />
      </Center>
    );
  }
  if (content.state === "error") return <Alert color="red">{failure}</Alert>;
  if (!content.text.trim()) return <>{empty}</>;
  return <AdminContent content={content.text} title={title} />;
}
