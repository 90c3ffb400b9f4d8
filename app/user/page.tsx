import { UsersPage } from "@/components/users/users-page";
import type { SearchParams } from "@/lib/ui/list-params";

export default function UserPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return <UsersPage searchParams={searchParams} />;
}
