// The few extension APIs the tests call inside extension pages (page.evaluate runs there, not here).
declare const chrome: {
  storage: {
    local: { get(key: string | null): Promise<Record<string, unknown>> };
    onChanged: { addListener(listener: (changes: Record<string, { newValue?: unknown; oldValue?: unknown }>, area: string) => void): void };
  };
  runtime: { sendMessage(message: unknown): Promise<unknown> };
  action: { getBadgeText(details: object): Promise<string> };
  notifications: { getAll(): Promise<Record<string, unknown>>; onButtonClicked: unknown };
};
