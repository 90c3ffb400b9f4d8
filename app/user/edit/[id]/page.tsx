import { notFound } from "next/navigation";
import { UsersPage } from "@/components/users/users-page";
import type { SearchParams } from "@/lib/ui/list-params";

/** /user/edit/{id}: the list with that user's edit drawer open. */
export default async function EditUserPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<SearchParams>;
}) {
  if (!/^[1-9]\d{0,9}$/.test((await params).id)) notFound();
  return <UsersPage searchParams={searchParams} />;
}
