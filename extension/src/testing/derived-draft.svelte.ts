// A view's draft as a component derives it (`$derived(draftFor(ask.id))`), outside a component, for
// tests of what a view holds once a draft is forgotten.
import { draftFor, type Draft } from "../reply/draft.svelte";

export function derivedDraft(askId: string): { current: () => Draft; stop: () => void } {
  let read!: () => Draft;
  const stop = $effect.root(() => {
    const draft = $derived(draftFor(askId));
    read = () => draft;
  });
  return { current: () => read(), stop };
}
