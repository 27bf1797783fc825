package io.relock.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LockServersTest {

  @Test
  void postgresUrl_asAJdbcUrl_withTheCredentialsAsParameters() {
    assertThat(LockServers.jdbcUrl("jdbc:postgresql://db:5432/app?user=a")).isEqualTo("jdbc:postgresql://db:5432/app?user=a");
    assertThat(LockServers.jdbcUrl("postgresql://bench:s3cret@127.0.0.1:5433/locks"))
        .isEqualTo("jdbc:postgresql://127.0.0.1:5433/locks?user=bench&password=s3cret");
    assertThat(LockServers.jdbcUrl("postgres://localhost")).isEqualTo("jdbc:postgresql://localhost/postgres");
    assertThat(LockServers.jdbcUrl("postgres://u@h:1/d?sslmode=disable"))
        .isEqualTo("jdbc:postgresql://h:1/d?user=u&sslmode=disable");
    assertThatThrownBy(() -> LockServers.jdbcUrl("mysql://h/d")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("POSTGRES_URL");
  }
}
