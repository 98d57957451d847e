package example;

import io.multifactor.fakes.BackendsProfile;
import io.multifactor.fakes.FakeBackends;
import io.multifactor.fakes.FakeModelProfile;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Runs the page's program against two fake OpenAI-compatible servers on loopback. */
class RoutedChatTest
{
    @Test
    void routesOneStreamedQuestion() throws Exception
    {
        final PrintStream out = System.out;
        final ByteArrayOutputStream printed = new ByteArrayOutputStream();
        try (FakeBackends servers = FakeBackends.start(new BackendsProfile(3, List.of(
            FakeModelProfile.steady("small", 5, 1, 8, 6), FakeModelProfile.steady("large", 5, 1, 8, 6)))))
        {
            System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
            RoutedChat.main(new String[] {"router.yaml",
                "small=http://127.0.0.1:" + servers.port("small") + "/v1",
                "large=http://127.0.0.1:" + servers.port("large") + "/v1"});
        }
        finally
        {
            System.setOut(out);
        }
        final String text = printed.toString(StandardCharsets.UTF_8);
        System.out.println(text);
        assertTrue(text.matches("(?s).+\\R+answered by (small|large) after 1 attempt\\(s\\)\\R*"), text);
    }
}
