/** Whether someone actually wrote something: whitespace alone says nothing the other side can answer. */
export const hasWords = (text: string | undefined): text is string => text !== undefined && text.trim() !== "";
