# Sourced by the bench scripts: nginx on 127.0.0.1 serving a folder, for tdl and its peers.
#
#   start_loopback_nginx WORK [EXTRA]    serves WORK/www; EXTRA: more lines inside server {}
#
# Sets NGINX_BASE (http://127.0.0.1:PORT). stop_loopback_nginx WORK stops it. The caller
# defines die(). nginx writes its pid file only once it listens: a port another server
# already holds makes nginx retry bind() for seconds, and meanwhile that other server
# would answer the readiness check.

start_loopback_nginx() {
  local work=$1 extra=${2:-} port user="" nginx=/usr/sbin/nginx
  [ -x "$nginx" ] || nginx=$(command -v nginx) || die "nginx is missing (scripts/install-deps.sh --test)"
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  NGINX_BASE="http://127.0.0.1:$port"
  mkdir -p "$work/nginx-tmp"
  # Workers run as www-data when started by root: the caller makes the files readable to them.
  [ "$(id -u)" -ne 0 ] || user="user www-data;"
  cat >"$work/nginx.conf" <<CONF
$user
worker_processes auto;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
  default_type application/octet-stream;
  access_log off;
  sendfile on;
  tcp_nopush on;
  client_body_temp_path $work/nginx-tmp; proxy_temp_path $work/nginx-tmp;
  fastcgi_temp_path $work/nginx-tmp; uwsgi_temp_path $work/nginx-tmp; scgi_temp_path $work/nginx-tmp;
  server {
    listen 127.0.0.1:$port;
    root $work/www;
    $extra
  }
}
CONF
  rm -f "$work/nginx.pid"
  "$nginx" -p "$work" -e "$work/nginx-error.log" -c "$work/nginx.conf" ||
    die "nginx did not start (see $work/nginx-error.log)"
  local tries=0
  until [ -s "$work/nginx.pid" ] && curl -s -o /dev/null "$NGINX_BASE/"; do
    tries=$((tries + 1))
    [ "$tries" -lt 100 ] || die "nginx does not answer on $NGINX_BASE (see $work/nginx-error.log)"
    sleep 0.05
  done
}

stop_loopback_nginx() {
  [ -s "$1/nginx.pid" ] && kill "$(cat "$1/nginx.pid")" 2>/dev/null
  return 0
}
