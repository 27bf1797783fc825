package io.relock.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BenchJsonTest {

  @Test
  void line_thenRead_roundTrips_inOrder_withWholeNumbersAsLongs() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", "a \"quoted\"\\ line\nnext\t\u0001");
    m.put("count", 42L);
    m.put("ratio", 0.125);
    m.put("ok", true);
    m.put("none", null);
    m.put("list", List.of(1L, "two", List.of()));
    m.put("nested", Map.of("x", -3L));
    assertThat(BenchJson.readObject(BenchJson.line(m))).isEqualTo(m).containsKeys("name", "count", "ratio");
    assertThat(BenchJson.readObject(BenchJson.line(m)).keySet()).containsExactlyElementsOf(m.keySet());
    assertThat(BenchJson.readObject(BenchJson.pretty(m))).isEqualTo(m);
  }

  @Test
  void figures_keepSixSignificantDigits_andWhatWasNotMeasuredBecomesNull() {
    assertThat(BenchJson.line(List.of(1234.56789, 0.000123456789, 3.0, Double.NaN, Double.POSITIVE_INFINITY, 7L)))
        .isEqualTo("[1234.57,0.000123457,3,null,null,7]");
  }

  @Test
  void pretty_putsEachKeyOnALineOfItsOwn() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("a", 1L);
    m.put("b", Map.of("c", List.of(1L, 2L)));
    assertThat(BenchJson.pretty(m)).isEqualTo("{\n  \"a\": 1,\n  \"b\": {\n    \"c\": [ 1, 2 ]\n  }\n}\n");
  }

  @Test
  void line_escapesControlCharacters() {
    assertThat(BenchJson.line("a\u0002b")).isEqualTo("\"a\\u0002b\"");
  }

  @Test
  void read_takesNumbersEscapesAndNesting() {
    Map<String, Object> m = BenchJson.readObject(" {\"a\": [1, -2.5e3, \"\\u0041\\n\"], \"b\": {}} ");
    assertThat(m.get("a")).isEqualTo(List.of(1L, -2500.0, "A\n"));
    assertThat(m.get("b")).isEqualTo(Map.of());
  }

  @Test
  void read_rejectsBrokenText_sayingWhere() {
    assertThatThrownBy(() -> BenchJson.readObject("{\"a\": 1,}")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("line 1, column 9");
    assertThatThrownBy(() -> BenchJson.readObject("{\"a\": 1} 2")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Trailing token");
    assertThatThrownBy(() -> BenchJson.readObject("{\"open")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> BenchJson.readObject("[1]")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a JSON object");
  }
}
