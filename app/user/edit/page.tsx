import { UsersPage } from "@/components/users/users-page";
import type { SearchParams } from "@/lib/ui/list-params";

/** /user/edit without an id: the list with the add-user drawer open. */
export default function AddUserPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return <UsersPage searchParams={searchParams} />;
}
