// The URL of a request. HTTP/1.0 lets a client leave out Host (HAProxy's plain health check does),
// and Bun then gives the request's url as the path alone: read against a placeholder origin, which
// no check compares with (Host and Origin are read from the headers).
export const requestUrl = (request: Request): URL => new URL(request.url, "http://host.invalid");
