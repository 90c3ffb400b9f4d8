"use client";
// Which item a list's drawer edits: none (closed), a new one, or the one with an id. The drawer
// itself loads the item (GET …/{id}) or starts from its defaults; saving closes it and refreshes.
import { useState } from "react";

export type Editing = { id?: number } | null;

export function useEditDrawer(onSaved: () => void) {
  const [editing, setEditing] = useState<Editing>(null);
  const close = () => setEditing(null);
  return {
    openNew: () => setEditing({}),
    openEdit: (id: number) => setEditing({ id }),
    /** Spread on the drawer: editing, onClose, onSaved. */
    props: {
      editing,
      onClose: close,
      onSaved: () => {
        close();
        onSaved();
      },
    },
  };
}
