import { ResetConfirmForm } from "@/components/auth/reset-confirm-form";

export default async function ResetConfirmPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const query = await searchParams;
  const one = (v: string | string[] | undefined) => (typeof v === "string" ? v.trim() : "");
  return <ResetConfirmForm email={one(query.email)} token={one(query.token)} />;
}
