# Sourced by bin/gluelab and bin/test: sets JAVA_HOME to a JDK 25 or newer, or fails with a clear message.
java_major() { "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p' | head -n1; }

find_java_home() {
  local candidates=()
  [ -n "${JAVA_HOME:-}" ] && candidates+=("$JAVA_HOME")
  for d in /usr/lib/jvm/temurin-25* /usr/lib/jvm/*-25* /opt/java/openjdk /usr/lib/jvm/*; do
    [ -d "$d" ] && candidates+=("$d")
  done
  if command -v java >/dev/null; then candidates+=("$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")"); fi
  for h in "${candidates[@]}"; do
    if [ -x "$h/bin/java" ] && [ -x "$h/bin/javac" ]; then
      local v; v="$(java_major "$h/bin/java")"
      if [ -n "$v" ] && [ "${v%%.*}" -ge 25 ] 2>/dev/null; then echo "$h"; return 0; fi
    fi
  done
  return 1
}

use_jdk25() {
  local h
  if ! h="$(find_java_home)"; then
    echo "gluelab: needs a JDK 25 or newer; install one (e.g. Temurin 25) or set JAVA_HOME to it" >&2
    exit 3
  fi
  export JAVA_HOME="$h"
  export PATH="$JAVA_HOME/bin:$PATH"
  # Maven's own libraries warn on JDK 25 about sun.misc.Unsafe; the warning is not ours.
  export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
}
