// SPDX-License-Identifier: GPL-2.0
/*
 * The one HTTP request ustack-flame makes: an OTLP/HTTP export, a POST of
 * a protobuf body to an http:// URL, on a connection of its own (HTTP/1.1,
 * "Connection: close"), every step bounded by a timeout. The answer's
 * status and body are the caller's: 2xx is taken, the rest is the caller's
 * to retry or drop. No TLS: a collector on the machine, or a proxy, takes
 * https on.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "flame.h"

/* The path of an OTLP/HTTP profiles export (opentelemetry-proto v1.11.0) */
#define FLAME_OTLP_PATH		"/v1development/profiles"
/* OTLP/HTTP's default port */
#define FLAME_OTLP_PORT		"4318"

/**
 * flame_url_parse - the parts of an http:// URL
 * @text: "http://HOST[:PORT][/PATH]"; HOST may be "[v6 address]"
 * @url: set from it: the port 4318 and the path /v1development/profiles
 *	when it has none
 *
 * Return: 0; -1 when it is not such a URL (too long, or another scheme).
 */
int flame_url_parse(const char *text, struct flame_url *url)
{
	const char *host, *end, *port = NULL, *path;
	size_t len;

	if (strncmp(text, "http://", 7))
		return -1;
	host = text + 7;
	path = strchr(host, '/');
	end = path ? path : host + strlen(host);
	if (*host == '[') {
		/* [v6]:port */
		host++;
		len = strcspn(host, "]");
		if (host + len >= end)
			return -1;
		if (host[len + 1] == ':')
			port = host + len + 2;
		else if (host + len + 1 != end)
			return -1;
	} else {
		port = memchr(host, ':', end - host);
		len = (port ? port : end) - host;
		if (port)
			port++;
	}
	if (!len || len >= sizeof(url->host))
		return -1;
	memcpy(url->host, host, len);
	url->host[len] = '\0';
	if (port && (end == port || (size_t)(end - port) >= sizeof(url->port) ||
		     strspn(port, "0123456789") < (size_t)(end - port)))
		return -1;
	if (port) {
		memcpy(url->port, port, end - port);
		url->port[end - port] = '\0';
	} else {
		snprintf(url->port, sizeof(url->port), "%s", FLAME_OTLP_PORT);
	}
	if (!path || !path[1])
		path = FLAME_OTLP_PATH;
	if (strlen(path) >= sizeof(url->path) || strpbrk(path, " \r\n"))
		return -1;
	snprintf(url->path, sizeof(url->path), "%s", path);
	return 0;
}

/* A socket connected to the URL's host, its reads and writes timing out; -1 with errno. */
static int flame_http_connect(const struct flame_url *url, unsigned int timeout_ms)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	struct timeval tv = { timeout_ms / 1000, timeout_ms % 1000 * 1000 };
	int fd = -1, err = ECONNREFUSED, ret;

	ret = getaddrinfo(url->host, url->port, &hints, &res);
	if (ret) {
		errno = ret == EAI_SYSTEM ? errno : EHOSTUNREACH;
		return -1;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0) {
			err = errno;
			continue;
		}
		/* on Linux, SO_SNDTIMEO bounds connect() too */
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
			break;
		err = errno == EINPROGRESS ? ETIMEDOUT : errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		errno = err;
	return fd;
}

static int flame_http_send(int fd, const void *data, size_t len)
{
	const char *p = data;
	ssize_t n;

	while (len) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			if (errno == EAGAIN)
				errno = ETIMEDOUT;
			return -1;
		}
		p += n;
		len -= n;
	}
	return 0;
}

/* Whether @buf holds an answer's headers and all of the body they announce */
static bool flame_http_whole(char *buf, size_t len)
{
	char *end = memmem(buf, len, "\r\n\r\n", 4), *cl;
	size_t n;

	if (!end)
		return false;
	buf[len] = '\0';
	cl = strcasestr(buf, "\r\nContent-Length:");
	return cl && cl < end && sscanf(cl + 17, "%zu", &n) == 1 &&
	       n <= (size_t)(buf + len - end - 4);
}

/*
 * The answer, read to the end of the body its Content-Length announces, or
 * to the connection's end, or as much as @body holds: its status ("HTTP/1.x NNN ..."), and its body into
 * @body (when it has a Content-Length and all of it came); -1 with errno.
 */
static int flame_http_answer(int fd, struct flame_http_body *body)
{
	char *buf = body->data, *end, *cl;
	size_t len = 0, size = sizeof(body->data) - 1, n_body;
	ssize_t n;
	int code;

	body->len = 0;
	while (len < size && !flame_http_whole(buf, len)) {
		n = recv(fd, buf + len, size - len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			if (errno == EAGAIN)
				errno = ETIMEDOUT;
			/* a status and headers already read will do */
			if (!memmem(buf, len, "\r\n\r\n", 4))
				return -1;
			break;
		}
		if (!n)
			break;
		len += n;
	}
	buf[len] = '\0';
	if (sscanf(buf, "HTTP/1.%*1[01] %3d", &code) != 1 || code < 100) {
		/* closed before an answer, or not HTTP */
		errno = len ? EPROTO : ECONNRESET;
		return -1;
	}
	end = memmem(buf, len, "\r\n\r\n", 4);
	cl = strcasestr(buf, "\r\nContent-Length:");
	if (end && cl && cl < end && sscanf(cl + 17, "%zu", &n_body) == 1 &&
	    n_body <= (size_t)(buf + len - end - 4)) {
		memmove(body->data, end + 4, n_body);
		body->len = n_body;
	}
	return code;
}

/**
 * flame_http_post - POST a body to a URL, once
 * @url: where to
 * @type: the body's Content-Type
 * @body: the body
 * @len: its length
 * @timeout_ms: the most each of connecting, sending and waiting for the
 *	answer may take
 * @answer: set to the answer's body, when it has one of a known length
 *
 * Return: the HTTP status of the answer; -1 with errno when there was none
 * (the connection could not be made, was reset, or timed out: ETIMEDOUT).
 */
int flame_http_post(const struct flame_url *url, const char *type, const void *body, size_t len,
		    unsigned int timeout_ms, struct flame_http_body *answer)
{
	char head[1536];
	int fd, n, ret = -1;

	n = snprintf(head, sizeof(head), "POST %s HTTP/1.1\r\nHost: %s%s%s:%s\r\n"
		     "User-Agent: ustack-flame/%s\r\nContent-Type: %s\r\n"
		     "Content-Length: %zu\r\nConnection: close\r\n\r\n", url->path,
		     strchr(url->host, ':') ? "[" : "", url->host,
		     strchr(url->host, ':') ? "]" : "", url->port, FLAME_VERSION, type, len);
	if (n < 0 || (size_t)n >= sizeof(head)) {
		errno = EINVAL;
		return -1;
	}
	fd = flame_http_connect(url, timeout_ms);
	if (fd < 0)
		return -1;
	if (!flame_http_send(fd, head, n) && !flame_http_send(fd, body, len))
		ret = flame_http_answer(fd, answer);
	close(fd);
	return ret;
}
