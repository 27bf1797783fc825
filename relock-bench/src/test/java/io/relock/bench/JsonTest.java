package io.relock.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {

  @Test
  void write_thenParse_roundTrips() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", "a \"quoted\"\\ line\nnext\t\u0001");
    m.put("count", 42L);
    m.put("ratio", 0.125);
    m.put("ok", true);
    m.put("none", null);
    m.put("list", List.of(1L, "two", List.of()));
    m.put("nested", Map.of("x", -3L));
    assertThat(Json.parse(Json.write(m))).isEqualTo(m);
    assertThat(Json.parse(Json.writePretty(m))).isEqualTo(m);
  }

  @Test
  void write_keepsSixSignificantDigits_andNaNBecomesNull() {
    assertThat(Json.write(List.of(1234.56789, 0.000123456789, 3.0, Double.NaN)))
        .isEqualTo("[1234.57,0.000123457,3,null]");
  }

  @Test
  void write_escapesControlCharacters() {
    assertThat(Json.write("a\u0002b")).isEqualTo("\"a\\u0002b\"");
  }

  @Test
  void parse_readsNumbersEscapesAndNesting() {
    Map<String, Object> m = Json.parseObject(" {\"a\": [1, -2.5e3, \"\\u0041\\n\"], \"b\": {}} ");
    assertThat(m.get("a")).isEqualTo(List.of(1L, -2500.0, "A\n"));
    assertThat(m.get("b")).isEqualTo(Map.of());
  }

  @Test
  void parse_rejectsBrokenText_withItsOffset() {
    assertThatThrownBy(() -> Json.parse("{\"a\": 1,}")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("offset");
    assertThatThrownBy(() -> Json.parse("[1] 2")).hasMessageContaining("trailing");
    assertThatThrownBy(() -> Json.parse("\"open")).hasMessageContaining("unterminated");
    assertThatThrownBy(() -> Json.parseObject("[1]")).hasMessageContaining("not a JSON object");
  }
}
